/*
Copyright 2026 The profile-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package lint

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/profile-scheduler/profile-scheduler/config"
)

// crdSchema is the validation kube-apiserver runs for one kind of a CRD:
// the structural schema (pruning, defaults), its OpenAPI validation and
// its CEL rules.
type crdSchema struct {
	namespaced bool
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// loadSchemas reads the CRDs the operator ships (config/crd/bases) into a
// schema per served group, version and kind.
func loadSchemas() (map[schema.GroupVersionKind]*crdSchema, error) {
	files, err := fs.Glob(config.CRDs, "crd/bases/*.yaml")
	if err != nil {
		return nil, err
	}
	out := map[schema.GroupVersionKind]*crdSchema{}
	for _, f := range files {
		data, err := fs.ReadFile(config.CRDs, f)
		if err != nil {
			return nil, err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				continue
			}
			var internal apiextensionsinternal.JSONSchemaProps
			if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, &internal, nil); err != nil {
				return nil, fmt.Errorf("%s: %s: %w", f, v.Name, err)
			}
			structural, err := structuralschema.NewStructural(&internal)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", f, v.Name, err)
			}
			validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", f, v.Name, err)
			}
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			out[gvk] = &crdSchema{
				namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
				structural: structural,
				validator:  validator,
				cel:        cel.NewValidator(structural, true, celconfig.PerCallLimit),
			}
		}
	}
	return out, nil
}

// admit does to obj what kube-apiserver does to a create of it, in its
// order: the name checked, unknown fields pruned (kubectl's strict field
// validation refuses them: they are returned), defaults applied, then the
// schema's validation and its CEL rules. obj is pruned and defaulted in
// place.
func (s *crdSchema) admit(ctx context.Context, obj map[string]any) (unknown []string, errs field.ErrorList) {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if name == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "name"), "name is required"))
	}
	for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(name, false) {
		if name != "" {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), name, msg))
		}
	}
	if ns, _ := meta["namespace"].(string); ns != "" && !s.namespaced {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "namespace"), ns, "the resource is cluster-scoped: no namespace"))
	}
	opts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
	unknown = structuralpruning.PruneWithOptions(obj, s.structural, true, opts)
	structuraldefaulting.Default(obj, s.structural)
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, obj, s.validator)...)
	if len(errs) == 0 {
		celErrs, _ := s.cel.Validate(ctx, nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	for i, u := range unknown {
		unknown[i] = strings.TrimPrefix(u, ".")
	}
	return unknown, errs
}
