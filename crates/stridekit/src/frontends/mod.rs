//! Front ends: NumPy basic slicing, ONNX Slice and command-line lists, translated into Slice1 parameters.
