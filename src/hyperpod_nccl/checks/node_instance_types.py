"""What each HyperPod GPU and Trainium instance type should show on the node.

EFA devices: the number of network cards, which is the most EFA interfaces the type can have
(EC2 User Guide, "Maximize network bandwidth on Amazon EC2 instances with multiple network
cards", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html, which
shows the 32-EFA request for P5; the accelerated-computing network specifications,
https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html, for the others; Neuron's Trn1/Trn2
architecture pages give 8x100/16x100/16x200 Gbps EFA). HyperPod attaches every EFA interface the
type supports; a node that shows fewer lost one.
GPUs / accelerators per instance: the same specifications.
"""

from __future__ import annotations

EFA_DEVICES: dict[str, int] = {
    "p4d.24xlarge": 4,
    "p4de.24xlarge": 4,
    "p5.48xlarge": 32,
    "p5e.48xlarge": 32,
    "p5en.48xlarge": 16,
    "p6-b200.48xlarge": 8,
    "trn1.32xlarge": 8,
    "trn1n.32xlarge": 16,
    "trn2.48xlarge": 16,
    "trn2u.48xlarge": 16,
}

GPUS: dict[str, int] = {
    "p4d.24xlarge": 8,
    "p4de.24xlarge": 8,
    "p5.48xlarge": 8,
    "p5e.48xlarge": 8,
    "p5en.48xlarge": 8,
    "p6-b200.48xlarge": 8,
}


def normalise(instance_type: str | None) -> str | None:
    """'ml.p5.48xlarge' (SageMaker's name) and 'p5.48xlarge' (EC2's, from DMI) -> 'p5.48xlarge'."""
    if not instance_type:
        return None
    value = instance_type.strip().lower()
    return value[3:] if value.startswith("ml.") else value or None
