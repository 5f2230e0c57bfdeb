package controllers

// GenerateCerts is generateCerts, for the envtest suite's TLS extenders.
var GenerateCerts = generateCerts

// RefusedGenerations is refusedGenerations, read by the envtest suite.
var RefusedGenerations = refusedGenerations
