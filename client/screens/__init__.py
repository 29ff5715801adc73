"""The client's screens: finder, connecting, lobby, table, and the modal prompts."""
