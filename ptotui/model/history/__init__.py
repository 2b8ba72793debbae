"""The past: timestamped snapshots, reports committed to git, since the snapshot, another source."""
