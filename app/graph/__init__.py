"""NodeGraphQt node classes for the material catalog and the adapter between the view and `app.material`."""
