"""recalld.hooks."""
