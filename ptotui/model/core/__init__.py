"""What a kernel's status, tier, blocker and change mean: the definitions every output shares."""
