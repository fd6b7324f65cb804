"""The JAX twin of Traitors Aboard (optional extra ``jax``: ``pip install -e ".[jax]"``)."""
