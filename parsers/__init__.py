"""recalld.parsers."""
