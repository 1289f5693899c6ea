"""The bundled demo: a small order-support backend, its judges and a scripted agent."""
