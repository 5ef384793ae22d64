"""The symbolic VirtualHome world and the EAI VirtualHome tasks."""

from planproof.simulators.virtualhome.domain import virtualhome_domain
from planproof.simulators.virtualhome.tasks import CHARACTER, load_virtualhome_tasks

__all__ = ["CHARACTER", "load_virtualhome_tasks", "virtualhome_domain"]
