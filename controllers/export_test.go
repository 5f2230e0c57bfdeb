package controllers

// RefusedGenerations is refusedGenerations, read by the envtest suite.
var RefusedGenerations = refusedGenerations
