"""Test helpers shared by unit and integration tests (fixtures, fake servers)."""
