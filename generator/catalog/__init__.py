"""The catalogue: schema and loading."""
