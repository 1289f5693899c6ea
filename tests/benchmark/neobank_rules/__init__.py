"""The neobank domain's business rules for the commit gate."""
