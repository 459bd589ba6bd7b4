"""Serving the dashboards: the server, its background workers, storage, access keys, and the patches to Panel and Bokeh."""
