"""The main screen and its parts: keys, the column chooser, the Step column, triage actions, the warnings box."""
