"""Reading the report files: safe opens, every format's reader, the merge into one ReportSet."""
