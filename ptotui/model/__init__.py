"""The report model: reading, merging, tiers, diffs, history and triage storage.

Nothing under this package imports Textual; the app layer draws what it builds.
"""
