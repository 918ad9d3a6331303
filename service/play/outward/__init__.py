"""What goes out of a match to the world besides mail: the event objects, live streams, webhooks."""
