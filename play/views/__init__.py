"""The play pages: function views, thin, grouped by noun."""
