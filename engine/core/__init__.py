"""Game-agnostic machinery shared by every game package.

* :mod:`engine.core.procedure` -- requests a rules procedure yields, and the play / replay / enumerate drivers;
* :mod:`engine.core.dist` -- exact discrete distributions;
* :mod:`engine.core.tree` -- probability trees built by the enumerate driver;
* :mod:`engine.core.hexgrid` -- XXYY hex geometry; :mod:`engine.core.areas` -- area and zone graphs;
* :mod:`engine.core.record` -- game records; :mod:`engine.core.data` -- validated YAML with provenance;
* :mod:`engine.core.sampling` -- Monte Carlo with confidence intervals, for what cannot be enumerated.
"""
