package controllers

// GenerateCerts is generateCerts, for the envtest suite's TLS extenders.
var GenerateCerts = generateCerts
