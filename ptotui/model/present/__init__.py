"""What the outputs are made of: exports, chart numbers, the table's columns, filter and order."""
