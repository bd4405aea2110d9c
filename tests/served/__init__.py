"""The served-path matrix: what a user is served, through every engine path, equals the core's one-pass reading."""
