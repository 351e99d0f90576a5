"""Who may do what: API keys, stored hashed in Neo4j, and the scopes they grant.

Keys are global (not inside a bank): a key names the banks it may use. Bank deletion never
touches a key, and a key naming a deleted bank simply reaches nothing there.
"""
