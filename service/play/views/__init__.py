"""Reading matches: the views, board pictures, move previews and listings (nothing here writes)."""
