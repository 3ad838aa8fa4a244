"""kernel_learning."""
