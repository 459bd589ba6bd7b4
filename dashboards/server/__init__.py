"""Serving the dashboards: the server, its background workers, storage, and the patches to Panel and Bokeh."""
