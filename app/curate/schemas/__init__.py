"""What clients send to the curation endpoints and what they get back (msgspec Structs, no I/O).

The HTTP client and the CLI import these modules without pulling in a database driver.
"""
