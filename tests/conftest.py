"""Shared pytest settings."""

from hypothesis import HealthCheck, settings

# Shared machines are noisy: a slow example is not a failure (speed is the
# benchmark's business, never a test's), so hypothesis gets no deadline.
settings.register_profile(
    "course", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("course")
