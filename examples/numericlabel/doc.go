// Package numericlabel is an example out-of-tree Score plugin for
// profile-scheduler: NumericLabel prefers nodes by the integer in one of
// their labels (for example a cost, a generation or a rack position),
// highest first, or lowest first with preferLow.
//
// Its args (NumericLabelArgs: labelKey, preferLow) are typed: with
// app.WithPluginArgs they are decoded strictly and defaulted by
// SetDefaults, and app.WithPluginArgsValidator checks them with
// ValidateArgs. cmd/numericlabel-scheduler builds the operator with it; the
// README walks through writing, building and enabling it.
package numericlabel
