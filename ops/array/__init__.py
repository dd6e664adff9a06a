"""Array ops: shapes, creation, slicing, gathering and scattering, joining, sorting."""
