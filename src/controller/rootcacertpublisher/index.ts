/** The root CA certificate publisher (pkg/controller/certificates/rootcacertpublisher). */
export { DESCRIPTION, DESCRIPTION_ANNOTATION, ROOT_CA_CONFIG_MAP, RootCACertPublisher, type RootCACertPublisherOptions } from './publisher.js';
