"""Run the conformance matrix and write its results."""

__all__ = []

# %% ../../nbs/16b_hf_matrix.ipynb #cd45436f
#| eval: false
from .results import main

main()

# %% ../../nbs/16b_hf_matrix.ipynb #cd45436f
#| eval: false
from .results import main

main()