"""The run configs, installed as the package ``training.configs`` (setup.py) so that a wheel carries them.

``traitors-train --config quick`` reads ``quick.yaml`` from here (:mod:`training.config_files`); this file only makes
the folder a regular package, which setuptools' editable install can map from its place at the top of the checkout.
"""
