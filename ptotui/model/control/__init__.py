"""Deciding what the dashboard does, without Textual: events in, effects out (the App runs them)."""
