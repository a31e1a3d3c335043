"""Native notifications: Approve / Deny / Open for a waiting call, and what they say."""
