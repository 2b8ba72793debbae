"""Keeping the reports true while files change: the watcher and the reload pipeline."""
