"""HTTP API: thin Litestar controllers, one module per resource."""
