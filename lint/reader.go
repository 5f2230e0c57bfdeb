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

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// objects are the ExtenderConfigs and Secrets of the manifests, read as
// the operator reads them from the cluster (controllers.Offline's
// Reader). What the manifests lack comes from cluster when it is set; else
// it is not known: an error that is not NotFound, so that what needs it is
// reported unchecked rather than refused.
type objects struct {
	extenders map[string]*v1alpha1.ExtenderConfig
	secrets   map[client.ObjectKey]*corev1.Secret
	cluster   client.Reader
}

var _ client.Reader = &objects{}

// notGiven is an object that neither the manifests nor a cluster provide;
// the caller's error names it.
type notGiven struct{ unchecked string }

func (e notGiven) Error() string {
	return "not in the files given (--cluster reads it from the cluster)" + e.unchecked
}

func (o *objects) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	switch out := obj.(type) {
	case *v1alpha1.ExtenderConfig:
		if ec, ok := o.extenders[key.Name]; ok {
			ec.DeepCopyInto(out)
			return nil
		}
		if o.cluster != nil {
			return o.cluster.Get(ctx, key, obj, opts...)
		}
		return notGiven{unchecked: ": checked without it"}
	case *corev1.Secret:
		if s, ok := o.secrets[key]; ok {
			s.DeepCopyInto(out)
			return nil
		}
		if o.cluster != nil {
			return o.cluster.Get(ctx, key, obj, opts...)
		}
		return notGiven{unchecked: ": its TLS material is not checked"}
	}
	return apierrors.NewBadRequest(fmt.Sprintf("lint reads no %T", obj))
}

func (o *objects) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return apierrors.NewBadRequest("lint lists nothing")
}
