"""hyperpod-nccl: root-cause analysis for distributed GPU training failures on SageMaker HyperPod."""

__version__ = "0.1.0"
