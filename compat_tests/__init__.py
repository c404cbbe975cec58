"""Differential tests: the same TF-API cases run under TensorFlow and tapejax."""
