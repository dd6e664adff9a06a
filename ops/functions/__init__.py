"""dg.function and the other ops that call a function: py_function, numpy_function."""
