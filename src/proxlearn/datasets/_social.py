"""A documented generator of a small photo-sharing community (Zhuang 2011, ch. 7).

The thesis's Flickr crawl (4,919 users) is not available and no installed
package ships a comparable multi-relational user data set, so tie-strength
methods are demonstrated on this generator. It is a stochastic block model
with several observed views of different quality, which is the situation of
sec. 7.2: some modalities carry the communities, some are noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["SocialNetwork", "make_social_network"]


@dataclass
class SocialNetwork:
    """Output of :func:`make_social_network`: tables over ``n_users`` users.

    Attributes
    ----------
    contacts : ndarray of shape (n_users, n_users)
        Directed contact lists (0/1).
    community : ndarray of shape (n_users,)
        The latent community of each user.
    groups, places, favourites, tags : ndarray of shape (n_users, n_items)
        Memberships and counts per user.
    comments : ndarray of shape (n_users, n_users)
        Comment counts (``i`` on ``j``'s photos).
    visual : ndarray of shape (n_images, visual_dim)
    owner : ndarray of shape (n_images,)
        The user of each image.

    Examples
    --------
    >>> from proxlearn.datasets import make_social_network
    >>> net = make_social_network(n_users=20, random_state=0)
    >>> net.community.shape, net.tags.shape
    ((20,), (20, 200))

    See Also
    --------
    make_social_network : builds one.
    proxlearn.pairwise.social_user_kernels : its seven kernels.
    """

    contacts: np.ndarray  # (n, n) 0/1, directed: contacts[i, j] = i lists j
    community: np.ndarray  # (n,) latent community (the ground truth, not a view)
    groups: np.ndarray  # (n, n_groups) 0/1 membership
    comments: np.ndarray  # (n, n) comment counts, comments[i, j] = i on j's photos
    places: np.ndarray  # (n, n_places) photo counts per grid cell
    favourites: np.ndarray  # (n, n_photos) 0/1 favourite marks
    tags: np.ndarray  # (n, n_tags) tag counts
    visual: np.ndarray  # (n_images, d) image histograms
    owner: np.ndarray  # (n_images,) user of each image


def make_social_network(n_users=300, n_communities=6, *, p_in=0.12, p_out=0.004,
                        n_groups=60, n_tags=200, n_places=80, n_photos=400,
                        images_per_user=5, visual_dim=32, random_state=None) -> SocialNetwork:
    """Users in latent communities with seven observed views (sec. 7.2.2).

    * contacts: directed, ``P(i -> j) = p_in`` within a community, ``p_out``
      across (the training signal, as Flickr's contact lists);
    * comments: Poisson counts, rate 2 along contacts, 0.02 elsewhere (the
      strongest view, as the thesis found);
    * groups: each community prefers 8 of the groups (join probability 0.3
      against 0.02);
    * tags: each community has a 30-tag vocabulary used 70% of the time,
      otherwise uniform tags (a topical view);
    * places: weakly community dependent (prefers 20 of the cells, 40%);
    * favourites, images: independent of the communities (noise views,
      like the thesis's Fave and Visual kernels).

    Returns
    -------
    SocialNetwork

    Examples
    --------
    >>> from proxlearn.datasets import make_social_network
    >>> net = make_social_network(n_users=30, random_state=0)
    >>> net.contacts.shape, net.visual.shape
    ((30, 30), (150, 32))

    See Also
    --------
    proxlearn.pairwise.social_user_kernels : the seven user kernels of a network.
    """
    rng = check_random_state(random_state)
    n = int(n_users)
    com = rng.randint(n_communities, size=n)
    same = com[:, None] == com[None, :]
    contacts = (rng.random_sample((n, n)) < np.where(same, p_in, p_out)).astype(np.int8)
    np.fill_diagonal(contacts, 0)
    comments = rng.poisson(np.where(contacts > 0, 2.0, 0.02))
    np.fill_diagonal(comments, 0)

    def preferred(k_items, k_pref):
        return np.array([rng.choice(k_items, k_pref, replace=False) for _ in range(n_communities)])

    pg = preferred(n_groups, 8)
    prob = np.full((n, n_groups), 0.02)
    for i in range(n):
        prob[i, pg[com[i]]] = 0.3
    groups = (rng.random_sample((n, n_groups)) < prob).astype(np.int8)

    pt = preferred(n_tags, 30)
    tags = np.zeros((n, n_tags), dtype=np.int32)
    for i in range(n):
        k = rng.poisson(20) + 1
        topical = rng.random_sample(k) < 0.7
        chosen = np.where(topical, rng.choice(pt[com[i]], k), rng.randint(n_tags, size=k))
        np.add.at(tags[i], chosen, 1)

    pp = preferred(n_places, 20)
    places = np.zeros((n, n_places), dtype=np.int32)
    for i in range(n):
        k = rng.poisson(6) + 1
        local = rng.random_sample(k) < 0.4
        np.add.at(places[i], np.where(local, rng.choice(pp[com[i]], k),
                                      rng.randint(n_places, size=k)), 1)

    favourites = (rng.random_sample((n, n_photos)) < 0.01).astype(np.int8)
    owner = np.repeat(np.arange(n), images_per_user)
    visual = rng.dirichlet(np.ones(visual_dim), size=len(owner))
    return SocialNetwork(contacts, com, groups, comments, places, favourites, tags, visual, owner)
