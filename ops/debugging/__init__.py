"""dg.debugging's runtime checks and dg.print."""
