package controllers

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/names"

	"github.com/profile-scheduler/profile-scheduler/api/v1alpha1"
)

// Plugins is what the controllers know about the scheduler's plugins beside
// upstream's in-tree ones: the names in its out-of-tree registry, and the
// validators of their typed args. The zero value knows the in-tree plugins
// only.
type Plugins struct {
	// OutOfTree names the plugins of the scheduler's out-of-tree registry.
	OutOfTree []string
	// Validators check the args of out-of-tree plugins, by plugin name.
	Validators map[string]ArgsValidator
}

// ArgsValidator checks the args of one plugin, as decoded (strictly, into
// the type registered with RegisterPluginArgs) and defaulted. path is
// spec.pluginConfig[i].args: an error names fields below it, as upstream's
// validators do (field.ErrorList.ToAggregate()), or is any error.
type ArgsValidator func(path *field.Path, args runtime.Object) error

// inTreeNames are the names of upstream's in-tree registry.
var inTreeNames = sync.OnceValue(func() sets.Set[string] {
	return sets.KeySet(frameworkplugins.NewInTreeRegistry())
})

// InTree reports whether name is one of upstream's in-tree plugins.
func InTree(name string) bool { return inTreeNames().Has(name) }

// known reports whether the scheduler has a plugin called name.
func (p Plugins) known(name string) bool {
	return InTree(name) || slices.Contains(p.OutOfTree, name)
}

// convert converts sp as every reconcile does: the plugin names checked
// (checkPluginNames), the upstream conversion, defaulting and validation
// (convertProfile), then checkPluginConfig and checkInTreeArgs.
func (p Plugins) convert(sp *v1alpha1.SchedulerProfile, extenders []config.Extender) (*config.KubeSchedulerProfile, *Refusal) {
	if refusal := p.checkPluginNames(sp); refusal != nil {
		return nil, refusal
	}
	prof, refusal := convertProfile(sp, extenders)
	if refusal == nil {
		refusal = p.checkPluginConfig(sp, prof)
	}
	if refusal == nil {
		refusal = checkInTreeArgs(sp, prof)
	}
	return prof, refusal
}

// checkPluginConfig refuses what upstream's conversion and validation let
// through in spec.pluginConfig: an entry naming a plugin that is in neither
// registry (UnknownPlugin: its args would be silently ignored), and args of
// an out-of-tree plugin that its validator rejects (InvalidPluginArgs). prof
// is sp converted by convertProfile.
func (p Plugins) checkPluginConfig(sp *v1alpha1.SchedulerProfile, prof *config.KubeSchedulerProfile) *Refusal {
	for i, pc := range sp.Spec.PluginConfig {
		if !p.known(pc.Name) {
			return refuse(v1alpha1.ReasonUnknownPlugin,
				"spec.pluginConfig[%d].name: plugin %q is not registered (neither in-tree nor out-of-tree); its args would be ignored%s",
				i, pc.Name, p.suggest(pc.Name))
		}
	}
	// The converted profile holds the entries of the spec, then the
	// defaulted args of the plugins it enables without an entry.
	for _, pc := range prof.PluginConfig {
		validate := p.Validators[pc.Name]
		if validate == nil {
			continue
		}
		path := field.NewPath("spec", "pluginConfig").Key(pc.Name).Child("args")
		if i := slices.IndexFunc(sp.Spec.PluginConfig, func(c v1alpha1.PluginConfig) bool { return c.Name == pc.Name }); i >= 0 {
			path = field.NewPath("spec", "pluginConfig").Index(i).Child("args")
		}
		if err := validate(path, pc.Args); err != nil {
			return refuse(v1alpha1.ReasonInvalidPluginArgs, "plugin %s: %v", pc.Name, err)
		}
	}
	return nil
}

// unusedPluginConfig names the spec.pluginConfig entries whose plugin the
// framework does not run (running is what it runs per extension point, as
// status.plugins lists it). Upstream accepts them, so they are not refused,
// but a typo in the plugins the profile enables leaves such args unused.
func unusedPluginConfig(pluginConfig []v1alpha1.PluginConfig, running *config.Plugins) []string {
	if running == nil {
		return nil
	}
	run := sets.New[string]()
	for _, ep := range extensionPoints(running) {
		for _, pl := range ep.set.Enabled {
			run.Insert(pl.Name)
		}
	}
	var out []string
	for i, pc := range pluginConfig {
		if !run.Has(pc.Name) {
			out = append(out, fmt.Sprintf("spec.pluginConfig[%d] configures plugin %q, which this profile does not run", i, pc.Name))
		}
	}
	return out
}

// profileWarning is something a live generation does that its author may
// not expect. Upstream accepts it, so it is not refused; it is said in
// the Ready message, in admission warnings and in a Warning event.
type profileWarning struct {
	reason  string
	message string
}

// profileWarnings lists the warnings of a generation that runs running
// (as status.plugins lists it) with pluginConfig.
func profileWarnings(pluginConfig []v1alpha1.PluginConfig, running *config.Plugins) []profileWarning {
	var out []profileWarning
	for _, m := range unusedPluginConfig(pluginConfig, running) {
		out = append(out, profileWarning{reason: v1alpha1.EventUnusedPluginConfig, message: m})
	}
	if m := gangSchedulingIgnored(running); m != "" {
		out = append(out, profileWarning{reason: v1alpha1.EventGangSchedulingDisabled, message: m})
	}
	return out
}

// warningMessages returns the messages of ws.
func warningMessages(ws []profileWarning) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.message)
	}
	return out
}

// gangSchedulingIgnored says, when the GenericWorkload gate is on and the
// profile does not run GangScheduling, that pod groups' minCount is
// ignored: their pods are still scheduled in pod-group cycles, but nothing
// holds a group back until minCount members are there or fit.
func gangSchedulingIgnored(running *config.Plugins) string {
	if running == nil || !utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		return ""
	}
	for _, ep := range extensionPoints(running) {
		for _, pl := range ep.set.Enabled {
			if pl.Name == names.GangScheduling {
				return ""
			}
		}
	}
	return fmt.Sprintf("plugin %s is not enabled while the GenericWorkload feature gate is on: pod groups' minCount will be ignored under this profile", names.GangScheduling)
}

// argsMu serialises RegisterPluginArgs.
var argsMu sync.Mutex

// RegisterPluginArgs makes the args of the out-of-tree plugin name typed:
// obj, a pointer to a struct embedding metav1.TypeMeta, is registered as
// kind <name>Args of kubescheduler.config.k8s.io/v1 (and of the internal
// version, with the same Go type) in upstream's scheduler configuration
// scheme. A pluginConfig entry for the plugin is then decoded strictly into
// that type (an unknown field is refused, naming it), defaulted by defaulter
// (when not nil; also when the plugin runs without a pluginConfig entry)
// and handed to the plugin's factory as that type.
//
// It changes process-wide state (upstream's scheme is global): call it
// before any profile is converted. Registering the same type again changes
// nothing (the first defaulter stays); another type under the same name, or
// a name of an in-tree plugin, is an error.
func RegisterPluginArgs(name string, obj runtime.Object, defaulter func(runtime.Object)) error {
	if name == "" {
		return errors.New("plugin args: empty plugin name")
	}
	if InTree(name) {
		return fmt.Errorf("plugin args for %q: an in-tree plugin has that name", name)
	}
	if obj == nil {
		return fmt.Errorf("plugin args for %q: nil args type", name)
	}
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("plugin args for %q: %T is not a pointer to a struct", name, obj)
	}
	argsMu.Lock()
	defer argsMu.Unlock()
	if versioned, internal, ok := schemeArgs(name); ok && (versioned == t || internal == t) {
		// The plugin's own scheme registers the kind, in upstream's
		// convention (a versioned and an internal type): decoding,
		// defaulting and conversion are the scheme's.
		if defaulter != nil {
			return fmt.Errorf("plugin args for %q: kind %sArgs is registered by the plugin's scheme (versioned %v, internal %v), whose defaults run: give no defaults", name, name, versioned, internal)
		}
		return checkSchemeArgs(name)
	}
	kinds := []schema.GroupVersionKind{
		configv1.SchemeGroupVersion.WithKind(name + "Args"), // what a pluginConfig entry decodes from
		config.SchemeGroupVersion.WithKind(name + "Args"),   // what the framework hands the plugin
	}
	// The decoder uses upstream's scheme; defaulting and the conversion to
	// the internal version use upstream's plugin args scheme.
	schemes := []*runtime.Scheme{scheme.Scheme, configv1.GetPluginArgConversionScheme()}
	registered := 0
	for _, s := range schemes {
		for _, gvk := range kinds {
			existing, err := s.New(gvk)
			if err != nil {
				continue
			}
			if reflect.TypeOf(existing) != t {
				return fmt.Errorf("plugin args for %q: kind %s is already registered as %T, not %T", name, gvk.Kind, existing, obj)
			}
			registered++
		}
	}
	if registered == len(schemes)*len(kinds) {
		// Registered before: the schemes, which other goroutines may read
		// by now, are not written again.
		return nil
	}
	for _, s := range schemes {
		for _, gvk := range kinds {
			s.AddKnownTypeWithName(gvk, obj)
		}
	}
	if defaulter != nil {
		configv1.GetPluginArgConversionScheme().AddTypeDefaultingFunc(obj, func(o any) { defaulter(o.(runtime.Object)) })
	}
	return nil
}

// schemeArgs returns the Go types the kind <name>Args is registered with in
// upstream's scheduler configuration scheme, versioned (v1) and internal,
// when both are registered as different types: the args of a plugin
// written in upstream's convention, whose packages add them to upstream's
// scheme builders (configv1.SchemeBuilder, config.SchemeBuilder) or to the
// scheme itself, as scheduler-plugins' do.
func schemeArgs(name string) (versioned, internal reflect.Type, ok bool) {
	v, err := scheme.Scheme.New(configv1.SchemeGroupVersion.WithKind(name + "Args"))
	if err != nil {
		return nil, nil, false
	}
	i, err := scheme.Scheme.New(config.SchemeGroupVersion.WithKind(name + "Args"))
	if err != nil {
		return nil, nil, false
	}
	if reflect.TypeOf(v) == reflect.TypeOf(i) {
		return nil, nil, false
	}
	return reflect.TypeOf(v), reflect.TypeOf(i), true
}

// SchemeArgsType is the type the factory of plugin name receives its args
// as when a scheme registers them in upstream's convention (the internal
// type); nil when none does.
func SchemeArgsType(name string) reflect.Type {
	argsMu.Lock()
	defer argsMu.Unlock()
	_, internal, ok := schemeArgs(name)
	if !ok {
		return nil
	}
	return internal
}

// checkSchemeArgs checks that the versioned args of plugin name, registered
// by its scheme, convert to the internal type the plugin receives: upstream
// converts pluginConfig args with a scheme of its own
// (configv1.GetPluginArgConversionScheme), which holds what was added to
// upstream's scheme builders before its first use.
func checkSchemeArgs(name string) error {
	conv := configv1.GetPluginArgConversionScheme()
	v, err := conv.New(configv1.SchemeGroupVersion.WithKind(name + "Args"))
	if err != nil {
		return fmt.Errorf("plugin args for %q: kind %sArgs is in upstream's scheme but not in its plugin-args conversion scheme: register the versioned and internal types with configv1.SchemeBuilder and config.SchemeBuilder (as upstream's and scheduler-plugins' args packages do), or give their AddToScheme with WithPluginScheme", name, name)
	}
	if _, err := conv.ConvertToVersion(v, config.SchemeGroupVersion); err != nil {
		return fmt.Errorf("plugin args for %q: kind %sArgs does not convert to its internal type (%v): register the conversion functions with the scheme", name, name, err)
	}
	return nil
}

// AddPluginScheme runs addToScheme, a plugin's registration of its args
// types, conversion and defaulting, on upstream's scheduler configuration
// scheme and on its plugin-args conversion scheme. A panic of addToScheme
// (a kind registered twice with different types) is returned as an error.
func AddPluginScheme(addToScheme func(*runtime.Scheme) error) (err error) {
	argsMu.Lock()
	defer argsMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("registering plugin args with the scheduler configuration scheme: %v", r)
		}
	}()
	for _, s := range []*runtime.Scheme{scheme.Scheme, configv1.GetPluginArgConversionScheme()} {
		if err := addToScheme(s); err != nil {
			return fmt.Errorf("registering plugin args with the scheduler configuration scheme: %w", err)
		}
	}
	return nil
}
