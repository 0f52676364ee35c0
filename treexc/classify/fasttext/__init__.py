"""fastText compatibility of the classifier: a fastText 0.9.x model read as
a treexc classifier (``convert``) and predicted with fastText's float32
arithmetic, to the bit (``kernels``)."""
