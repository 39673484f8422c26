"""Prints the text of a PDF (the conformance fixture's sample script)."""
import sys

print(f"would extract {sys.argv[1]}")
