"""ptotui: a live terminal dashboard for PTO kernel benchmark reports."""

__version__ = "0.1.0"
