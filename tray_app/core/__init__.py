"""The application service: commands in, events out."""
