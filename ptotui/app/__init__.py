"""The Textual app: draws the model from ptotui.model and nothing more."""
