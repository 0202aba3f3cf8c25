"""recalld.ingest."""
