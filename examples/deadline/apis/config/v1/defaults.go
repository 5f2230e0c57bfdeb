package v1

import "k8s.io/utils/ptr"

// The defaults of DeadlineArgs.
const (
	DefaultDeadlineAnnotation     = "example.com/deadline"
	DefaultDefaultDeadlineSeconds = int64(3600)
	DefaultUrgentWithinSeconds    = int64(300)
	DefaultFastNodeLabel          = "example.com/fast"
)

// SetDefaults_DeadlineArgs fills in what args leave unset. The scheme runs
// it when args are decoded, and for a profile that enables the plugin
// without a pluginConfig entry.
func SetDefaults_DeadlineArgs(args *DeadlineArgs) { //nolint:revive // upstream's name for a defaulting function
	if args.DeadlineAnnotation == nil {
		args.DeadlineAnnotation = ptr.To(DefaultDeadlineAnnotation)
	}
	if args.DefaultDeadlineSeconds == nil {
		args.DefaultDeadlineSeconds = ptr.To(DefaultDefaultDeadlineSeconds)
	}
	if args.UrgentWithinSeconds == nil {
		args.UrgentWithinSeconds = ptr.To(DefaultUrgentWithinSeconds)
	}
	if args.FastNodeLabel == nil {
		args.FastNodeLabel = ptr.To(DefaultFastNodeLabel)
	}
}
