# The random playouts export nothing at the C level: they drive the simulator's
# matches (``_sim.pxd``) from ``gof_random_playouts``.
