// Home page: nothing yet beyond the plain form (uploads come with storage).
