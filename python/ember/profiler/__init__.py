"""ember.profiler: torch.profiler's profile and record_function over the C++ profiler
(include/ember/profiler.h). Every op called from Python is recorded by its C++ front end, with
the names the C++ profiler gives (ember::mm, ember::add, ...)."""
from .profiler import (  # noqa: F401
    ProfilerActivity, profile, record_function, supported_activities)
from .schedule import ProfilerAction, schedule, tensorboard_trace_handler  # noqa: F401

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]
