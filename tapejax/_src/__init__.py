"""Implementation of tapejax. Nothing here is public API; see the top-level modules."""
